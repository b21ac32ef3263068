// Differences between crdgen's test server and kube-apiserver that the fidelity scenarios find
// and that stay, each with its reason. The fidelity test fails on any other difference, and on
// an entry here that no longer matches anything (so this list is exactly what differs).
// docs/testing.md's table lists the same entries (a test checks).

export interface KnownDivergence {
  scenario: string;
  step: string;
  /** The differing field (as the harness names it: `body.metadata.x`, `message`); a RegExp matches several. */
  field: string | RegExp;
  reason: string;
}

const YAML_WORDING =
  "A YAML body that does not parse is refused with the same status and reason, its syntax error worded by the yaml package where kube-apiserver quotes go-yaml's (`line 1: did not find expected ',' or ']'`)";

export const KNOWN: KnownDivergence[] = [
  {
    scenario: 'bad requests: verbs on collections and objects, bodies, content types, query parameters',
    step: 'apply that is not YAML',
    field: 'message',
    reason: YAML_WORDING,
  },
  {
    scenario: 'bad requests: verbs on collections and objects, bodies, content types, query parameters',
    step: 'POST as YAML that does not parse: 400',
    field: 'message',
    reason: YAML_WORDING,
  },
];
