// metav1.Time's parsing as Go does it: time.Parse with the RFC 3339 layout, and its error text.

/** Go's time.Parse(time.RFC3339, v) error, or undefined when it parses. */
export function rfc3339Error(v: string): string | undefined {
  const layout = '2006-01-02T15:04:05Z07:00';
  const head = `parsing time ${JSON.stringify(v)} as ${JSON.stringify(layout)}`;
  const elems: [string, RegExp][] = [
    ['2006', /^\d{4}/],
    ['-', /^-/],
    ['01', /^\d{2}/],
    ['-', /^-/],
    ['02', /^\d{2}/],
    ['T', /^T/],
    ['15', /^\d{2}/],
    [':', /^:/],
    ['04', /^\d{2}/],
    [':', /^:/],
    ['05', /^\d{2}(\.\d+)?/],
    ['Z07:00', /^(Z|[+-]\d{2}:\d{2})/],
  ];
  let rest = v;
  for (const [elem, re] of elems) {
    const m = re.exec(rest);
    if (!m) return `${head}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(elem)}`;
    rest = rest.slice(m[0].length);
  }
  if (rest !== '') return `${head}: extra text: ${JSON.stringify(rest)}`;
  return Number.isNaN(Date.parse(v)) ? `${head}: day out of range` : undefined;
}
