// Command re2go prints Go's regexp verdicts for a list of patterns: for each case of the JSON array
// read on standard input ({"pattern": "...", "inputs": ["...", ...]}), whether regexp.Compile
// accepts the pattern (and its error text when it does not) and, for an accepted one, what
// kube-apiserver's uses of it give on each input: MatchString (OpenAPI `pattern`, CEL `matches`),
// FindString (Kubernetes' CEL `find`) and FindAllString with no limit (`findAll`). The JSON array
// of results goes to standard output, in the order of the cases.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

type testCase struct {
	Pattern string   `json:"pattern"`
	Inputs  []string `json:"inputs"`
}

type inputResult struct {
	Input   string   `json:"input"`
	Match   bool     `json:"match"`
	Find    *string  `json:"find"`
	FindAll []string `json:"findAll"`
}

type caseResult struct {
	Pattern string        `json:"pattern"`
	Error   *string       `json:"error"`
	Results []inputResult `json:"results"`
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintf(os.Stderr, "re2go: reading the cases: %v\n", err)
		os.Exit(2)
	}
	out := make([]caseResult, 0, len(cases))
	for _, c := range cases {
		r := caseResult{Pattern: c.Pattern, Results: []inputResult{}}
		re, err := regexp.Compile(c.Pattern)
		if err != nil {
			msg := err.Error()
			r.Error = &msg
			out = append(out, r)
			continue
		}
		for _, in := range c.Inputs {
			ir := inputResult{Input: in, Match: re.MatchString(in), FindAll: []string{}}
			if loc := re.FindStringIndex(in); loc != nil {
				s := in[loc[0]:loc[1]]
				ir.Find = &s
			}
			if all := re.FindAllString(in, -1); all != nil {
				ir.FindAll = all
			}
			r.Results = append(r.Results, ir)
		}
		out = append(out, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "re2go: writing the results: %v\n", err)
		os.Exit(2)
	}
}
