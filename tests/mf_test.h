/* tests/mf_test.h - helpers shared by the Check-based tests.
 *
 * Check's ck_assert* macros record the location of every passing assertion through a system call,
 * which makes them cost microseconds; loops over millions of values use MF_EXPECT instead, which
 * does nothing until it fails.
 */
#ifndef MF_TEST_H
#define MF_TEST_H

#include <check.h>
#include <stdlib.h>

#define MF_EXPECT(cond, ...)           \
    do {                               \
        if (!(cond))                   \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

/* Run a suite; the process exit status tells ctest the verdict. */
static inline int mf_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* MF_TEST_H */
