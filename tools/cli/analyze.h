/* tools/cli/analyze.h - `minifloat analyze`: what each format does to a tensor read from a file. */
#ifndef MF_TOOLS_ANALYZE_CMD_H
#define MF_TOOLS_ANALYZE_CMD_H

/* Run `minifloat analyze ...`; argv[0] is the program, argv[1] "analyze". Prints the report on
 * stdout, messages on stderr; returns the exit status: 0 success, 1 data or I/O error (a file that
 * cannot be read or parsed), 2 usage error. See docs/cli.md. */
int mf_analyze_cmd_main(int argc, char **argv);

/* The usage lines of analyze, for `minifloat --help`. */
extern const char mf_analyze_cmd_usage[];

#endif /* MF_TOOLS_ANALYZE_CMD_H */
