// Go's regexp package as the reference for crdgen's RE2 engine: reads pattern cases (JSON) on
// standard input and prints Go's verdict and matches for each. Standard library only.
// Built by scripts/re2-go.sh into .cache/re2go/<stamp>/.
module crdgen.local/re2go

go 1.26
