/* tools/cli/cli_util.c - see cli_util.h. */
#include "cli_util.h"

#include <string.h>

int cli_opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(lng);
    if (strncmp(a, lng, n) == 0 && a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (strcmp(a, lng) == 0 || (shrt && strcmp(a, shrt) == 0)) {
        if (*i + 1 >= argc)
            return -1;
        *val = argv[++*i];
        return 1;
    }
    return 0;
}
