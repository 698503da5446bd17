/* SPDX-License-Identifier: MIT */
/* tools/cli/analyze_off.c - `minifloat analyze` in a build without the overflow lab (MF_BUILD_LAB=OFF):
 * compiled instead of analyze.c, it says so and exits with status 2. */
#include "cli_util.h"
#include "commands.h"

const char cli_analyze_usage[] =
    "analyze            not in this build (configured with MF_BUILD_LAB=OFF: no overflow lab)\n";

int cli_analyze_main(int argc, char **argv)
{
    static const cli_voice voice = {"minifloat: analyze: ", "minifloat"};
    (void)argc;
    (void)argv;
    return cli_usage_error(&voice, "this minifloat was built without the overflow lab (MF_BUILD_LAB=OFF)");
}
