/* tools/cli/analyze.h - `minifloat analyze`: what each format does to a tensor read from a file. */
#ifndef CLI_ANALYZE_H
#define CLI_ANALYZE_H

/* Run `minifloat analyze ...`; argv[0] is the program, argv[1] "analyze". Prints the report on
 * stdout, messages on stderr; returns the exit status: 0 success, 1 data or I/O error (a file that
 * cannot be read or parsed), 2 usage error. See docs/cli.md. */
int cli_analyze_main(int argc, char **argv);

/* The usage lines of analyze, for `minifloat --help`. */
extern const char cli_analyze_usage[];

#endif /* CLI_ANALYZE_H */
