/* SPDX-License-Identifier: MIT */
// tests/hygiene/hygiene.cpp - <minifloat.h> as C++ (built as C++11 and C++17).
#include <cstdio>

#include "hygiene_body.h"

int main()
{
    int bad = mf_hygiene_failures();
    std::printf("%d failures\n", bad);
    return bad != 0;
}
