"""XeTile transformations: stage 2 `xetile-wg-to-sg` (work-group to subgroup; the package
`wg_to_sg/`, with its `distribution` math), stage 3
`xetile-canonicalize`, `xetile-blocking` and `xetile-check-hw`."""
