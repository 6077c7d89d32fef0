/**
 * One part's XML through saxes, pushed a chunk at a time. Names come without their namespace prefix (`x:row` is
 * `row`): OOXML's transitional and strict namespaces name the same elements, and some writers use a prefix.
 * A DOCTYPE is refused (no OOXML part has one; saxes would not expand its entities anyway, but a part that declares
 * any is damaged or hostile), and so is text that runs on without markup beyond MAX_TEXT_CHARS: saxes holds a text
 * node whole, and a cell holds at most 32,767 characters.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { InputError } from '../../errors.js';
import { MAX_RECORD_BYTES } from '../record-limits.js';
import { unreadableWorkbook } from './zip-parts.js';

export const MAX_TEXT_CHARS = MAX_RECORD_BYTES;

export interface XmlHandlers {
  open(name: string, attributes: Record<string, string>): void;
  close(name: string): void;
  text(text: string): void;
}

export interface XmlFeed {
  write(chunk: Buffer): void;
  end(): void;
}

export function xmlFeed(file: string, part: string, handlers: XmlHandlers): XmlFeed {
  const parser = new SaxesParser({ xmlns: false, position: true, fileName: part });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let sinceEvent = 0;
  let event = false;
  parser.on('opentag', (tag: SaxesTagPlain) => {
    event = true;
    handlers.open(localName(tag.name), tag.attributes as Record<string, string>);
  });
  parser.on('closetag', (tag: SaxesTagPlain) => {
    event = true;
    handlers.close(localName(tag.name));
  });
  parser.on('text', (text) => {
    event = true;
    handlers.text(text);
  });
  parser.on('cdata', (text) => {
    event = true;
    handlers.text(text);
  });
  parser.on('doctype', () => {
    throw unreadableWorkbook(file, `its part ${part} declares a DOCTYPE, which no Excel part has`);
  });
  const run = (step: () => void) => {
    try {
      step();
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw unreadableWorkbook(file, `${part}: ${(error as Error).message}`, error);
    }
  };
  return {
    write(chunk) {
      run(() => {
        const text = decoder.decode(chunk, { stream: true });
        event = false;
        parser.write(text);
        sinceEvent = event ? 0 : sinceEvent + text.length;
        if (sinceEvent > MAX_TEXT_CHARS) {
          throw unreadableWorkbook(file, `${part} holds a text of over ${MAX_TEXT_CHARS / 1024 / 1024} MB`);
        }
      });
    },
    end() {
      run(() => {
        parser.write(decoder.decode());
        parser.close();
      });
    },
  };
}

/** Parses a small part whole. */
export function parseXml(file: string, part: string, xml: Buffer, handlers: XmlHandlers): void {
  const feed = xmlFeed(file, part, handlers);
  feed.write(xml);
  feed.end();
}

export function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** An attribute by local name (`r:id` is found as `id` with a prefix; a plain `id` is not it). */
export function prefixedAttribute(attributes: Record<string, string>, local: string): string | undefined {
  for (const [name, value] of Object.entries(attributes)) {
    const colon = name.indexOf(':');
    if (colon > 0 && name.slice(colon + 1) === local && name.slice(0, colon) !== 'xmlns') return value;
  }
  return undefined;
}
