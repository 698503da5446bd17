/* SPDX-License-Identifier: MIT */
/* tests/mf_test.h - helpers shared by the Check-based tests.
 *
 * Check's ck_assert* macros record the location of every passing assertion through a system call, which
 * makes them cost microseconds (more under qemu and the sanitizers); below, ck_assert_msg is redefined
 * so that they do not, and MF_EXPECT (which does nothing until it fails) says the same in the loops
 * over millions of values.
 */
#ifndef MF_TEST_H
#define MF_TEST_H

#include <check.h>
#include <time.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Every ck_assert* macro ends in ck_assert_msg: here a passing assertion costs its comparison and no system
 * call (Check's record only names the last assertion passed before a crash); a failing one reports as Check's. */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
    ((expr) ? (void)0 : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", __VA_ARGS__))

#define MF_EXPECT(cond, ...)           \
    do {                               \
        if (!(cond))                   \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

/* Bit casts between the IEEE formats and their encodings. The tests keep their own (memcpy) rather than
 * borrow the library's, so that no check leans on the code it checks. */
static inline uint32_t mf_test_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float mf_test_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline uint64_t mf_test_f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline double mf_test_bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* MF_TEST_SAMPLE=k: the tests that take it check one case in k, a different one each day, so that k
 * days of runs cover every case (the ASan tier and the aarch64 tier under qemu set 8, the TSan tier 4:
 * scripts/setup.sh); unset or 1, every case. mf_test_take(&i) says whether case number i++ is checked. */
static inline unsigned long mf_test_sample(void)
{
    const char *e = getenv("MF_TEST_SAMPLE");
    const unsigned long k = e ? strtoul(e, NULL, 10) : 1;
    return k ? k : 1;
}
static inline int mf_test_take(unsigned long *i)
{
    const unsigned long k = mf_test_sample();
    return k == 1 || (*i)++ % k == (unsigned long)(time(NULL) / 86400) % k;
}

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
