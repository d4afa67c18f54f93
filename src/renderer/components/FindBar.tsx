// A pane's find bar (Ctrl+Shift+F): xterm's search addon with a match count; Enter / Shift+Enter move, Escape closes.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useUi } from '../store/ui.js';
import { sessions } from '../terminal/sessions.js';
import type { SearchResults } from '../terminal/TerminalAddons.js';
import { IconChevronDown, IconChevronUp, IconClose } from './icons.js';

export function FindBar({ paneId, openCount }: { paneId: string; openCount: number }) {
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<SearchResults>();

  // biome-ignore lint/correctness/useExhaustiveDependencies: each opening (`openCount`) focuses the field again
  useEffect(() => {
    // Ctrl+Shift+F again: back to the field, its text selected for a new search.
    input.current?.focus();
    input.current?.select();
  }, [openCount]);

  useEffect(() => sessions.get(paneId)?.addons.onSearchResults(setResults), [paneId]);

  const find = (q: string, backwards = false): void => {
    const found = sessions.get(paneId)?.addons.find(q, backwards);
    if (!q || found === false) setResults(q ? { index: -1, count: 0 } : undefined);
  };
  const close = (): void => {
    const session = sessions.get(paneId);
    session?.addons.clearSearch();
    useUi.getState().closeFind(paneId);
    session?.focus();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'Escape') close();
    else if (e.key === 'Enter') find(query, e.shiftKey);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  const count =
    !query || !results
      ? ''
      : results.count === 0
        ? 'No results'
        : results.index < 0
          ? `${results.count} matches`
          : `${results.index + 1} of ${results.count}`;
  return (
    <div className="findbar" role="search" aria-label="Find in terminal">
      <input
        ref={input}
        className="findbar__input"
        type="text"
        placeholder="Find"
        aria-label="Find"
        spellCheck={false}
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          find(e.target.value);
        }}
        onKeyDown={onKeyDown}
      />
      <span className="findbar__count" role="status" aria-live="polite">
        {count}
      </span>
      <button
        type="button"
        className="icon-button"
        aria-label="Previous match"
        title="Previous match (Shift+Enter)"
        onClick={() => find(query, true)}
      >
        <IconChevronUp />
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label="Next match"
        title="Next match (Enter)"
        onClick={() => find(query)}
      >
        <IconChevronDown />
      </button>
      <button type="button" className="icon-button" aria-label="Close find" title="Close (Escape)" onClick={close}>
        <IconClose size={12} />
      </button>
    </div>
  );
}
