// The RE2 → JavaScript RegExp translation crdgen matched patterns with before it used a linear-time
// RE2 engine (src/runtime/validation/re2.ts), kept only so test/unit/runtime/validation/re2-corpus.test.ts
// can check that the corpus's patterns still match what they matched, and bench/regex.ts can time it.
// It backtracks (exponential time on `^(a+)+$`) and differs from Go on `\s`, `.`, `(?i)`, `\p{…}`.

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const isLetter = (c: string) => /^[A-Za-z]$/.test(c);
const swap = (c: string) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

/** Translates an RE2 pattern to a JS pattern source (use with the `u` flag when it parses). */
export function re2ToJs(re: string): string {
  let out = '';
  // flag scopes: one entry per open group; inline flags set the top entry
  const scopes: { i: boolean; s: boolean }[] = [{ i: false, s: false }];
  const top = () => scopes[scopes.length - 1];
  for (let k = 0; k < re.length; k++) {
    const c = re[k];
    if (c === '\\') {
      const n = re[k + 1] ?? '';
      if (n === 'z') out += '$(?![\\s\\S])';
      else if (n === 'A') out += '^';
      else if (n === 'Q') {
        const end = re.indexOf('\\E', k + 2);
        const lit = re.slice(k + 2, end < 0 ? re.length : end);
        out += lit.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
        k = end < 0 ? re.length : end + 1;
        continue;
      } else if ((n === 'p' || n === 'P') && re[k + 2] === '{') {
        const end = re.indexOf('}', k + 2);
        out += re.slice(k, end + 1);
        k = end;
        continue;
      } else if (n === 'x' && re[k + 2] === '{') {
        const end = re.indexOf('}', k + 2);
        out += `\\u{${re.slice(k + 3, end)}}`;
        k = end;
        continue;
      } else {
        // Go refuses escapes of letters and digits it does not define (`\q`); JS would take them literally
        if (/[A-Za-z]/.test(n) && !/[abfnrtvdDsSwWbBpPxz]/.test(n))
          throw new SyntaxError(`invalid escape sequence: \`\\${n}\``);
        out += c + n;
      }
      k++;
      continue;
    }
    if (c === '[') {
      // character class: copy, expanding POSIX classes and adding the other case under (?i)
      let cls = '[';
      let j = k + 1;
      if (re[j] === '^') cls += re[j++];
      if (re[j] === ']') {
        cls += '\\]';
        j++;
      }
      for (; j < re.length && re[j] !== ']'; j++) {
        const d = re[j];
        if (d === '[' && re[j + 1] === ':') {
          const end = re.indexOf(':]', j + 2);
          const name = re.slice(j + 2, end);
          if (end > 0 && POSIX[name.replace(/^\^/, '')] !== undefined) {
            cls += POSIX[name.replace(/^\^/, '')];
            j = end + 1;
            continue;
          }
        }
        if (d === '\\') {
          cls += d + (re[j + 1] ?? '');
          j++;
          continue;
        }
        if (d === '[') {
          cls += '\\[';
          continue;
        }
        if (top().i && isLetter(d)) {
          if (re[j + 1] === '-' && isLetter(re[j + 2] ?? '')) {
            const e = re[j + 2];
            cls += `${d}-${e}${swap(d)}-${swap(e)}`;
            j += 2;
            continue;
          }
          cls += d + swap(d);
          continue;
        }
        cls += d;
      }
      // Go: `missing closing ]`
      if (j >= re.length) throw new SyntaxError(`missing closing ]: \`${re.slice(k)}\``);
      out += cls + ']';
      k = j;
      continue;
    }
    if (c === '(') {
      const flags = /^\(\?([imsU-]+)\)/.exec(re.slice(k));
      if (flags) {
        let on = true;
        for (const f of flags[1]) {
          if (f === '-') on = false;
          else if (f === 'i') top().i = on;
          else if (f === 's') top().s = on;
        }
        k += flags[0].length - 1;
        continue;
      }
      const scoped = /^\(\?([imsU-]+):/.exec(re.slice(k));
      const next = { ...top() };
      if (scoped) {
        let on = true;
        for (const f of scoped[1]) {
          if (f === '-') on = false;
          else if (f === 'i') next.i = on;
          else if (f === 's') next.s = on;
        }
        out += '(?:';
        k += scoped[0].length - 1;
      } else if (re.startsWith('(?P<', k)) {
        out += '(?<';
        k += 3;
      } else out += c;
      scopes.push(next);
      continue;
    }
    if (c === ')') {
      if (scopes.length > 1) scopes.pop();
      out += c;
      continue;
    }
    if (c === '.' && top().s) {
      out += '[\\s\\S]';
      continue;
    }
    if (top().i && isLetter(c)) {
      out += `[${c}${swap(c)}]`;
      continue;
    }
    out += c;
  }
  return out;
}

/** Compiles an RE2 pattern to a RegExp (unicode when it parses); throws with the JS engine's reason. */
export function compileRe2(re: string, extraFlags = ''): RegExp {
  const src = re2ToJs(re);
  try {
    return new RegExp(src, `u${extraFlags}`);
  } catch {
    return new RegExp(src, extraFlags);
  }
}
