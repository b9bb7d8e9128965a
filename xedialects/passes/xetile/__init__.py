"""XeTile transformations: stage 2 `xetile-wg-to-sg` (work-group to subgroup, with
`distribution`), stage 3 `xetile-canonicalize`, `xetile-blocking` and `xetile-check-hw`."""
