"""run-torch-tidy, the project runner (bin/run-torch-tidy is its entry point).

Modules, each with one job (docs/design.md, "run-torch-tidy's modules"):

  cli             the command line and main()
  run             one run: analyse the files, report, fix, exit status
  common          name, configured values, exit statuses, errors, file writing
  database        compile_commands.json: reading, selecting files, shards
  flags           compiler flags clang rejects (GCC-only list, --drop-flag)
  tools           finding torch-tidy and the clang++ of its LLVM
  preamble        a file's LibTorch preamble and include search path
  pch             precompiled headers: planning, building, reusing
  tidy            running torch-tidy on one file and parsing its output
  fixes           exported fix-its: merging, applying, reading back
  cache           the result cache
  summary_file    summary files: format, merge, views
  summary_start   the table the summaries rounds start from
  summary_rounds  the summaries rounds until the table settles
  shards          sharded runs: options, a shard's summaries, --merge-summaries
  baseline        finding fingerprints and --baseline
  gitdiff         --diff REF: changed lines and the files to analyse
  reports         unique diagnostics, text and JSON reports
  sarif_rules     SARIF rules from the check pages
  sarif           the SARIF report, --merge-sarif
  codechecker     CodeChecker's labels of the torch-* checks (--codechecker-labels)
  progress        progress on stderr
"""
