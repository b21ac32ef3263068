// A list response read as it arrives: the objects of its top-level `items` array are cut out of
// the byte stream and parsed one by one while the rest is still on the wire, so that parsing a
// list of 100k objects overlaps the server's writing of it (kube-apiserver streams large lists),
// instead of one JSON.parse of the whole text after its last byte. The other members (kind,
// apiVersion, metadata) are parsed at the end. A body that is not such a document is parsed whole.

/** Where the scanner is in the document. */
const enum State {
  /** Before the top-level object's `{`. */
  Start,
  /** Inside the top-level object, between members. */
  Members,
  /** Inside the `items` array, between elements. */
  Items,
  /** Inside one element of `items` (depth counts its braces and brackets). */
  Item,
  /** After the top-level object. */
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;

/** The bytes of `"items"` as a member name. */
const ITEMS_KEY = Buffer.from('"items"');

/**
 * Cuts the elements of a list document's top-level `items` array out of its bytes as they
 * come (`push`), parses each at once, and parses the rest of the document at the end (`end`).
 * Invariants: `pending` holds the bytes not yet consumed (at most one unfinished member name,
 * element or string); `rest` holds the document without the elements of `items`.
 */
export class ListStreamParser<T> {
  private state = State.Start;
  private pending: Buffer = Buffer.alloc(0);
  /** Offset in `pending` where scanning resumes. */
  private pos = 0;
  /** Start of the element being scanned, in `pending`. */
  private itemStart = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The member name just read at the top level (to know `items` when its value starts). */
  private lastKey: Buffer | undefined;
  private keyStart = -1;
  private readonly restParts: Buffer[] = [];
  /** Where the part of `pending` not yet copied to `rest` begins (outside elements). */
  private restFrom = 0;
  readonly items: T[] = [];
  /** True once the top-level `items` array began. */
  private sawItems = false;
  /** True when the body did not look like a list document: it is parsed whole by `end`. */
  private whole = false;
  private readonly wholeParts: Buffer[] = [];

  /** Feeds the next bytes of the body. */
  push(chunk: Buffer): void {
    if (this.whole) {
      this.wholeParts.push(chunk);
      return;
    }
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.scan();
    this.compact();
  }

  /** Ends the body; returns the document with its parsed `items`. Throws when it is not JSON. */
  end(): Record<string, unknown> & { items: T[] } {
    if (this.whole) return JSON.parse(Buffer.concat(this.wholeParts).toString('utf8')) as never;
    if (this.state === State.Start && this.pending.length === this.pos && this.restParts.length === 0)
      return JSON.parse(this.pending.toString('utf8')) as never;
    if (this.state !== State.Done) {
      // an unfinished document: JSON.parse says what is wrong with it
      JSON.parse(Buffer.concat([...this.restParts, this.pending.subarray(this.restFrom)]).toString('utf8'));
      throw new Error('the list response ended early');
    }
    this.restParts.push(this.pending.subarray(this.restFrom));
    const doc = JSON.parse(Buffer.concat(this.restParts).toString('utf8')) as Record<string, unknown>;
    // (a document without an items array is returned as it is: the caller judges it)
    if (this.sawItems) doc.items = this.items;
    return doc as Record<string, unknown> & { items: T[] };
  }

  /** Gives up cutting: keeps every byte seen so far for one parse at the end. */
  private parseWhole(): void {
    this.whole = true;
    this.wholeParts.push(...this.restParts, this.pending.subarray(this.restFrom));
    this.restParts.length = 0;
    this.pending = Buffer.alloc(0);
    this.pos = 0;
  }

  private scan(): void {
    const b = this.pending;
    let i = this.pos;
    const n = b.length;
    while (i < n) {
      const c = b[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.state === State.Members && this.keyStart >= 0) {
            this.lastKey = b.subarray(this.keyStart, i + 1);
            this.keyStart = -1;
          }
        }
        i++;
        continue;
      }
      switch (this.state) {
        case State.Start:
          if (c === OPEN_BRACE) {
            this.state = State.Members;
            this.depth = 0;
          } else if (!isSpace(c)) {
            this.pos = i;
            return this.parseWhole();
          }
          break;
        case State.Members:
          if (c === QUOTE) {
            this.inString = true;
            // a member name at the top level, or a string value: either way remembered, a name is followed by ':'
            if (this.depth === 0) this.keyStart = i;
          } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
            if (
              this.depth === 0 &&
              c === OPEN_BRACKET &&
              this.lastKey !== undefined &&
              this.lastKey.equals(ITEMS_KEY)
            ) {
              // the items array begins: what precedes it, and its '[', stay in the rest
              this.state = State.Items;
              this.sawItems = true;
              this.restParts.push(b.subarray(this.restFrom, i + 1));
              this.restFrom = i + 1;
              this.lastKey = undefined;
              break;
            }
            this.depth++;
          } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
            if (this.depth === 0) {
              if (c === CLOSE_BRACE) this.state = State.Done;
            } else this.depth--;
          } else if (c === COLON) {
            // the value of the member just named: lastKey stays until the value begins
          } else if (!isSpace(c) && c !== 0x2c && this.depth === 0) {
            // a scalar value at the top level (a number, true, false, null): not the items key
            this.lastKey = undefined;
          }
          break;
        case State.Items:
          if (c === OPEN_BRACE) {
            this.state = State.Item;
            this.itemStart = i;
            this.depth = 1;
          } else if (c === CLOSE_BRACKET) {
            // the array ends: its ']' and what follows go to the rest
            this.state = State.Members;
            this.depth = 0;
            this.restFrom = i;
          } else if (c === QUOTE || (!isSpace(c) && c !== 0x2c)) {
            // an element that is not an object: not a list of objects, parse the whole document
            this.pos = i;
            return this.parseWholeKeepingItems();
          }
          break;
        case State.Item:
          if (c === QUOTE) this.inString = true;
          else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
          else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
            if (--this.depth === 0) {
              this.items.push(JSON.parse(b.toString('utf8', this.itemStart, i + 1)) as T);
              this.state = State.Items;
              this.restFrom = i + 1;
            }
          }
          break;
        case State.Done:
          if (!isSpace(c)) {
            this.pos = i;
            return this.parseWhole();
          }
          break;
      }
      i++;
    }
    this.pos = i;
  }

  /** A document whose items are not all objects: the elements cut so far are put back as text. */
  private parseWholeKeepingItems(): void {
    const done = this.items.splice(0).map((o) => JSON.stringify(o));
    this.restParts.push(Buffer.from(done.join(',') + (done.length ? ',' : '')));
    // from the element on (the separators before it were dropped with the elements)
    this.restFrom = this.pos;
    this.parseWhole();
  }

  /** Moves what is done to `rest` (outside the items) and drops it from `pending`. */
  private compact(): void {
    if (this.whole) return;
    // the first byte still needed: the element being read, the member name being read, or the scan position
    const keep = this.state === State.Item ? this.itemStart : this.keyStart >= 0 ? this.keyStart : this.pos;
    // outside the array its bytes belong to the rest; between and inside elements they do not
    if (this.state !== State.Items && this.state !== State.Item && keep > this.restFrom)
      this.restParts.push(Buffer.from(this.pending.subarray(this.restFrom, keep)));
    this.pending = this.pending.subarray(keep);
    this.pos -= keep;
    if (this.state === State.Item) this.itemStart = 0;
    if (this.keyStart >= 0) this.keyStart -= keep;
    this.restFrom = 0;
    if (this.lastKey) this.lastKey = Buffer.from(this.lastKey);
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
