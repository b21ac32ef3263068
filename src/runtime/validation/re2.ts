// Regular expressions as Go's `regexp` package has them (RE2 syntax, linear-time matching): the
// apiserver compiles OpenAPI `pattern` and CEL `matches()`, `find()` and `findAll()` with it, so
// crdgen accepts and refuses the same patterns, with Go's error text, and matches in time linear in
// the input: no value a user sends can make a validator, webhook or the test server backtrack.
//
// Matching is re2js's (a JavaScript port of RE2/Go's regexp, MIT). Where Go 1.26's parser differs
// from it, a pattern is rewritten before re2js sees it and the error text mapped back to the
// pattern as written: Unicode class names are looked up as Go does (`\p{greek}`, `\p{Letter}`;
// only the general categories, their long names and the scripts of Unicode 15.0.0, Go's tables —
// not re2js's extra properties such as `\p{Emoji}` or its newer scripts), and capture names may
// repeat. Characters assigned after Unicode 15.0.0 are classified by re2js's newer tables.
import { RE2JS, RE2JSSyntaxException } from 're2js';

/** A pattern Go's regexp.Compile refuses; `message` is Go's error text (`error parsing regexp: …`). */
export class Re2SyntaxError extends SyntaxError {
  constructor(message: string) {
    super(message);
    this.name = 'Re2SyntaxError';
  }
}

/** A compiled pattern, matching as Go's *regexp.Regexp does (leftmost-first, unanchored). */
export interface Re2 {
  /** The pattern as written. */
  readonly source: string;
  /** Go's MatchString: the pattern matches somewhere in `s` (OpenAPI `pattern`, CEL `matches`). */
  test(s: string): boolean;
  /** Go's FindStringIndex as a string: the leftmost match, or null (CEL `find` gives '' then). */
  find(s: string): string | null;
  /** Go's FindAllString(s, n): successive non-overlapping matches, all when `limit` < 0. */
  findAll(s: string, limit?: number): string[];
}

// Go 1.26's Unicode tables (unicode.Version 15.0.0): general categories, their aliases and scripts.
const CATEGORIES =
  'C Cc Cf Cn Co Cs L LC Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs';
const CATEGORY_ALIASES =
  'Cased_Letter:LC Close_Punctuation:Pe Combining_Mark:M Connector_Punctuation:Pc Control:Cc Currency_Symbol:Sc ' +
  'Dash_Punctuation:Pd Decimal_Number:Nd Enclosing_Mark:Me Final_Punctuation:Pf Format:Cf Initial_Punctuation:Pi ' +
  'Letter:L Letter_Number:Nl Line_Separator:Zl Lowercase_Letter:Ll Mark:M Math_Symbol:Sm Modifier_Letter:Lm ' +
  'Modifier_Symbol:Sk Nonspacing_Mark:Mn Number:N Open_Punctuation:Ps Other:C Other_Letter:Lo Other_Number:No ' +
  'Other_Punctuation:Po Other_Symbol:So Paragraph_Separator:Zp Private_Use:Co Punctuation:P Separator:Z ' +
  'Space_Separator:Zs Spacing_Mark:Mc Surrogate:Cs Symbol:S Titlecase_Letter:Lt Unassigned:Cn ' +
  'Uppercase_Letter:Lu cntrl:Cc digit:Nd punct:P';
const SCRIPTS =
  'Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki ' +
  'Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee ' +
  'Chorasmian Common Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra ' +
  'Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati ' +
  'Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited ' +
  'Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi ' +
  'Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian ' +
  'Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui ' +
  'Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari ' +
  'Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic ' +
  'Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage ' +
  'Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan ' +
  'Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri ' +
  'Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan ' +
  'Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square';

/** Go's canonicalName: first letter upper-case, the rest lower-case, without `_`, `-` and spaces. */
function canonicalName(name: string): string {
  const s = name.replace(/[_\- ]/g, '');
  return s === '' ? '' : s[0].toUpperCase() + s.slice(1).toLowerCase();
}

let unicodeNames: Map<string, string> | undefined;
/** Go's Unicode class names by canonical name → the name re2js knows the same table by. */
function goUnicodeName(name: string): string | undefined {
  if (!unicodeNames) {
    unicodeNames = new Map([
      ['Any', 'Any'],
      ['Assigned', 'Assigned'],
      ['Ascii', 'Ascii'],
      ['Lc', 'LC'],
    ]);
    // Go looks the canonical name up in its tables as it is: names with capitals or `_` inside
    // (`Old_Italic`, `SignWriting`, `LC`) are out of reach
    for (const n of `${CATEGORIES} ${SCRIPTS}`.split(' ')) if (canonicalName(n) === n) unicodeNames.set(n, n);
    for (const a of CATEGORY_ALIASES.split(' ')) {
      const [alias, cat] = a.split(':');
      if (!unicodeNames.has(canonicalName(alias))) unicodeNames.set(canonicalName(alias), cat);
    }
  }
  return unicodeNames.get(canonicalName(name));
}

/** A replacement of pattern[start, end) by `text` before re2js compiles it. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * The edits that make re2js parse `p` as Go does: Unicode class names spelled as re2js knows them
 * (a name Go does not know becomes `\p{}`, which re2js refuses at the same place), and, with
 * `unnameGroups`, named groups made plain (Go allows a name twice).
 */
function goEdits(p: string, unnameGroups: boolean): Edit[] {
  const edits: Edit[] = [];
  let inClass = false;
  let classStart = 0;
  for (let i = 0; i < p.length;) {
    const c = p[i];
    if (c === '\\') {
      const n = p[i + 1];
      if (n === 'Q' && !inClass) {
        const end = p.indexOf('\\E', i + 2);
        i = end < 0 ? p.length : end + 2;
        continue;
      }
      if (n === 'p' || n === 'P') {
        i = unicodeClassEdit(p, i, edits);
        continue;
      }
      // an escaped character (a surrogate pair is skipped whole)
      i += 2 + (n !== undefined && n.codePointAt(0)! > 0xffff ? 1 : 0);
      continue;
    }
    if (inClass) {
      if (c === '[' && p[i + 1] === ':') {
        const end = p.indexOf(':]', i + 2);
        if (end >= 0) {
          i = end + 2;
          continue;
        }
      }
      // a `]` first in the class (after `[` or `[^`) is a literal
      if (c === ']' && i > classStart) inClass = false;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      classStart = p[i + 1] === '^' ? i + 2 : i + 1;
      i = classStart;
      continue;
    }
    if (unnameGroups && c === '(' && p[i + 1] === '?') {
      const named = /^\(\?P?<([^>=!][^>]*)>/.exec(p.slice(i, i + 256));
      if (named) {
        edits.push({ start: i, end: i + named[0].length, text: '(' });
        i += named[0].length;
        continue;
      }
    }
    i++;
  }
  return edits;
}

/** Adds the edit for the `\p…`/`\P…` at `i`, if it needs one; returns the index after it. */
function unicodeClassEdit(p: string, i: number, edits: Edit[]): number {
  let name: string;
  let end: number;
  if (p[i + 2] === '{') {
    const close = p.indexOf('}', i + 3);
    if (close < 0) return p.length; // re2js refuses it as Go does
    name = p.slice(i + 3, close);
    end = close + 1;
  } else {
    const cp = p.codePointAt(i + 2);
    if (cp === undefined) return p.length;
    name = String.fromCodePoint(cp);
    end = i + 2 + name.length;
  }
  const negated = name.startsWith('^');
  const actual = goUnicodeName(negated ? name.slice(1) : name);
  const text = actual === undefined ? '\\p{}' : `\\${p[i + 1]}{${negated ? '^' : ''}${actual}}`;
  if (text !== p.slice(i, end)) edits.push({ start: i, end, text });
  return end;
}

/** The pattern with the edits applied. */
function applyEdits(p: string, edits: readonly Edit[]): string {
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += p.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + p.slice(at);
}

/**
 * Maps a piece of the edited pattern that an error quotes back to the pattern as written: Go
 * quotes the whole pattern, what follows the error, or the offending token.
 */
function quoteInOriginal(p: string, edited: string, edits: readonly Edit[], quoted: string): string {
  if (edits.length === 0 || quoted === '') return quoted;
  const from = edited.endsWith(quoted) ? edited.length - quoted.length : edited.indexOf(quoted);
  if (from < 0) return quoted;
  const to = from + quoted.length;
  // a position in the edited text → in the original; one inside an edit maps to the edit's start or end
  const map = (pos: number, isEnd: boolean): number => {
    let shift = 0;
    for (const e of edits) {
      const eStart = e.start + shift;
      if (pos <= eStart) break;
      if (pos < eStart + e.text.length) return isEnd ? e.end : e.start;
      shift += e.text.length - (e.end - e.start);
    }
    return pos - shift;
  };
  return p.slice(map(from, false), map(to, true));
}

function compileEdited(p: string, edits: readonly Edit[]): RE2JS {
  const edited = applyEdits(p, edits);
  try {
    return RE2JS.compile(edited);
  } catch (e) {
    if (!(e instanceof RE2JSSyntaxException)) throw e;
    // Go quotes the whole pattern when it is too deep or too large; re2js quotes nothing then
    const whole = e.error === 'expression nests too deeply' || e.error === 'expression too large';
    const quoted = whole ? p : quoteInOriginal(p, edited, edits, e.input ?? '');
    throw new Re2SyntaxError(`error parsing regexp: ${e.error}: \`${quoted}\``);
  }
}

/** re2js compiled the way Go's regexp.Compile parses `p`; throws {@link Re2SyntaxError} with Go's text. */
function compileGo(p: string): RE2JS {
  try {
    return compileEdited(p, goEdits(p, false));
  } catch (e) {
    if (e instanceof Re2SyntaxError && e.message.startsWith('error parsing regexp: duplicate capture group name'))
      return compileEdited(p, goEdits(p, true));
    throw e;
  }
}

class GoRegexp implements Re2 {
  readonly #re: RE2JS;
  constructor(
    readonly source: string,
    re: RE2JS,
  ) {
    this.#re = re;
  }
  test(s: string): boolean {
    return this.#re.test(s);
  }
  find(s: string): string | null {
    const at = this.#re.re2().findIndex(s) as [number, number] | null;
    return at ? s.slice(at[0], at[1]) : null;
  }
  findAll(s: string, limit = -1): string[] {
    if (limit === 0) return [];
    return (this.#re.re2().findAll(s, limit) as string[] | null) ?? [];
  }
}

const cache = new Map<string, Re2>();
const CACHE_LIMIT = 4096;

/**
 * Compiles an RE2 pattern as Go's regexp.Compile does (compiled patterns are cached, as schemas
 * repeat them); throws {@link Re2SyntaxError} with Go's error text for a pattern Go refuses.
 */
export function compileRe2(pattern: string): Re2 {
  let re = cache.get(pattern);
  if (re) return re;
  re = new GoRegexp(pattern, compileGo(pattern));
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, re);
  return re;
}
