"""Shared helpers of the passes and conversions: `ir_walk` (walking and reading IR), `rebuild`
(the `Rebuilder` that rewrites ops with 1:N value mapping), `driver` (per-function passes) and
`index_arith` (index arithmetic that folds constants)."""
