// Stands in for eventsource-parser/stream in `switchboard mcp`'s bundle (scripts/build.mjs puts it there), for the MCP
// SDK's Streamable HTTP client transport. Its class extends TransformStream, so loading it loads Node's web streams,
// about a fifth of the bridge's start; the bridge needs them only once a call sends progress (an event stream). The
// class is loaded, and Node's web streams with it, at the first stream.
import type { EventSourceParserStream as ParserStream } from 'eventsource-parser/stream';

type Options = ConstructorParameters<typeof ParserStream>[0];

/** Called with `new` by the SDK: returning the real stream makes it what `new` gives. */
export function EventSourceParserStream(options?: Options): ParserStream {
  // A require the bundler resolves to the real module, run only here.
  const real = require('eventsource-parser/stream') as { EventSourceParserStream: typeof ParserStream };
  return new real.EventSourceParserStream(options);
}
