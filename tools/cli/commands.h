/* SPDX-License-Identifier: MIT */
/* tools/cli/commands.h - the commands of minifloat, one file each; main.c dispatches to them. */
#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

/* Each takes main's argc and argv (argv[1] is the command) and returns the exit status: 0 success,
 * 1 data or I/O error, 2 usage error. Output on stdout, messages on stderr. */
int cli_info_main(int argc, char **argv);
int cli_show_main(int argc, char **argv);
int cli_convert_main(int argc, char **argv);
int cli_analyze_main(int argc, char **argv);
int cli_plan_main(int argc, char **argv);
int cli_train_demo_main(int argc, char **argv);
int cli_gemm_lab_main(int argc, char **argv);
int cli_memory_main(int argc, char **argv);

/* The usage lines of analyze, for `minifloat --help`. */
extern const char cli_analyze_usage[];
/* `minifloat convert --help`: a printf format whose %s is the format tags. */
extern const char cli_convert_usage[];

#endif /* CLI_COMMANDS_H */
