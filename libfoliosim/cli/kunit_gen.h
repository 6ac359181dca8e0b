/* SPDX-License-Identifier: MIT */
/* foliosim kunit-gen (kunit_gen.c). */
#ifndef FOLIOSIM_CLI_KUNIT_GEN_H
#define FOLIOSIM_CLI_KUNIT_GEN_H

/* foliosim kunit-gen [-o FILE] FILE...: argv after the command name. */
int cmd_kunit_gen(int argc, char **argv);

#endif /* FOLIOSIM_CLI_KUNIT_GEN_H */
