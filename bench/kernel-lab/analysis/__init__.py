"""The kernel lab's one analysis path (bench/kernel-lab/analyse is its
command): parsers of the per-run files (parse), the summaries of a lab, a
pay-off, a clock-lab or a procstat folder and the consolidated results
(lab, payoff, clock, procstat, results), the plot of the consolidated
results (plot), all on one implementation of the paired-ratio statistics
(stats) and of the file readers (files)."""
