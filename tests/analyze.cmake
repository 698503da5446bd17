# The overflow lab's analysis (docs/analyze.md): mf_analyze against element-by-element scalar references,
# brute-forced safe scales, the bulk conversion's counters, bad arguments.
mf_add_test(test_analyze SOURCES test_analyze.c LABELS unit TIMEOUT 300)
