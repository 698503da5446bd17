/* SPDX-License-Identifier: MIT */
/* tools/cli/memory_off.c - `minifloat memory` in a build without the lab library (MF_BUILD_LAB=OFF):
 * compiled instead of memory.c, it says so and exits with status 2. */
#include "cli_util.h"
#include "commands.h"

int cli_memory_main(int argc, char **argv)
{
    static const cli_voice voice = {"minifloat: memory: ", "minifloat"};
    (void)argc;
    (void)argv;
    return cli_usage_error(&voice, "this minifloat was built without the lab library (MF_BUILD_LAB=OFF)");
}
