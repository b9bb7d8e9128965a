"""The definition layer: declarative op/type/attribute definitions from which IRDL, the readable
syntax (parser and printer), verifiers and Python builders are all derived."""
