/* tools/cli/cli_util.h - option parsing shared by the minifloat subcommands. */
#ifndef CLI_CLI_UTIL_H
#define CLI_CLI_UTIL_H

/* If argv[*i] is the option `lng` ("--name", also "--name=VALUE") or `shrt` ("-r", may be NULL),
 * return 1 and its value in *val (advancing *i past a separate value), -1 if the value is missing,
 * 0 if it is not this option. */
int cli_opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt, const char **val);

#endif /* CLI_CLI_UTIL_H */
