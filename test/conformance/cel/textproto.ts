// A protobuf text-format reader for cel-spec's SimpleTestFile data: messages as field → values
// (repeated fields keep every value), scalars as their token text; strings are decoded to bytes
// (text format escapes are byte escapes) and kept as Uint8Array.

/** A text-format message. */
export interface Msg {
  readonly fields: Map<string, Field[]>;
}
/** One field value: a scalar token, a string (bytes), or a message. */
export type Field = { kind: 'scalar'; text: string } | { kind: 'bytes'; bytes: Uint8Array } | { kind: 'msg'; msg: Msg };

class Reader {
  private i = 0;
  constructor(private readonly s: string) {}

  private ws(): void {
    for (;;) {
      while (this.i < this.s.length && /[\s,;]/.test(this.s[this.i])) this.i++;
      if (this.s[this.i] === '#') {
        while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
        continue;
      }
      return;
    }
  }

  private fail(why: string): never {
    const line = this.s.slice(0, this.i).split('\n').length;
    throw new Error(`textproto: ${why} at line ${line}`);
  }

  message(end: string | undefined): Msg {
    const fields = new Map<string, Field[]>();
    for (;;) {
      this.ws();
      if (this.i >= this.s.length) {
        if (end !== undefined) this.fail('unexpected end');
        return { fields };
      }
      if (end !== undefined && this.s[this.i] === end) {
        this.i++;
        return { fields };
      }
      let name: string;
      if (this.s[this.i] === '[') {
        const close = this.s.indexOf(']', this.i);
        name = this.s.slice(this.i, close + 1);
        this.i = close + 1;
      } else {
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i));
        if (!m) this.fail(`expected a field name, found ${JSON.stringify(this.s.slice(this.i, this.i + 10))}`);
        name = m[0];
        this.i += name.length;
      }
      this.ws();
      let colon = false;
      if (this.s[this.i] === ':') {
        this.i++;
        colon = true;
        this.ws();
      }
      const list = fields.get(name) ?? [];
      fields.set(name, list);
      if (this.s[this.i] === '[' && colon) {
        this.i++;
        for (;;) {
          this.ws();
          if (this.s[this.i] === ']') {
            this.i++;
            break;
          }
          list.push(this.value());
        }
      } else list.push(this.value());
    }
  }

  private value(): Field {
    this.ws();
    const c = this.s[this.i];
    if (c === '{' || c === '<') {
      this.i++;
      return { kind: 'msg', msg: this.message(c === '{' ? '}' : '>') };
    }
    if (c === '"' || c === "'") {
      const parts: number[] = [];
      while (this.s[this.i] === '"' || this.s[this.i] === "'") {
        parts.push(...this.string());
        this.ws();
      }
      return { kind: 'bytes', bytes: Uint8Array.from(parts) };
    }
    const m = /^[-+A-Za-z0-9_.]+/.exec(this.s.slice(this.i));
    if (!m) this.fail('expected a value');
    this.i += m[0].length;
    return { kind: 'scalar', text: m[0] };
  }

  private string(): number[] {
    const q = this.s[this.i++];
    const out: number[] = [];
    const enc = new TextEncoder();
    while (this.s[this.i] !== q) {
      if (this.i >= this.s.length) this.fail('unterminated string');
      const ch = this.s[this.i];
      if (ch !== '\\') {
        const cp = this.s.codePointAt(this.i)!;
        const str = String.fromCodePoint(cp);
        out.push(...enc.encode(str));
        this.i += str.length;
        continue;
      }
      const e = this.s[this.i + 1];
      this.i += 2;
      const simple: Record<string, number> = {
        n: 10,
        r: 13,
        t: 9,
        '\\': 92,
        "'": 39,
        '"': 34,
        a: 7,
        b: 8,
        f: 12,
        v: 11,
        '?': 63,
      };
      if (e in simple) out.push(simple[e]);
      else if (/[0-7]/.test(e)) {
        let v = Number(e);
        for (let k = 0; k < 2 && /[0-7]/.test(this.s[this.i] ?? ''); k++) v = v * 8 + Number(this.s[this.i++]);
        out.push(v & 0xff);
      } else if (e === 'x') {
        let h = '';
        while (h.length < 2 && /[0-9a-fA-F]/.test(this.s[this.i] ?? '')) h += this.s[this.i++];
        out.push(parseInt(h, 16));
      } else if (e === 'u' || e === 'U') {
        const n = e === 'u' ? 4 : 8;
        const cp = parseInt(this.s.slice(this.i, this.i + n), 16);
        this.i += n;
        out.push(...enc.encode(String.fromCodePoint(cp)));
      } else this.fail(`unknown escape \\${e}`);
    }
    this.i++;
    return out;
  }
}

/** Parses a whole text-format file. */
export function parseTextproto(text: string): Msg {
  return new Reader(text).message(undefined);
}

/** The first value of a field. */
export function get(m: Msg, name: string): Field | undefined {
  return m.fields.get(name)?.[0];
}

/** All values of a field. */
export function all(m: Msg, name: string): Field[] {
  return m.fields.get(name) ?? [];
}

/** A field's message. */
export function msg(m: Msg, name: string): Msg | undefined {
  const f = get(m, name);
  return f?.kind === 'msg' ? f.msg : undefined;
}

/** A string field, decoded as UTF-8. */
export function str(m: Msg, name: string): string | undefined {
  const f = get(m, name);
  if (f?.kind === 'bytes') return new TextDecoder().decode(f.bytes);
  if (f?.kind === 'scalar') return f.text;
  return undefined;
}

/** A scalar field's token. */
export function scalar(m: Msg, name: string): string | undefined {
  const f = get(m, name);
  return f?.kind === 'scalar' ? f.text : undefined;
}
