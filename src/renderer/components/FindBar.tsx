// A pane's find bar (Ctrl+Shift+F): xterm's search addon with a match count and VS Code's three switches (match case
// Alt+C, regular expression Alt+R, whole word Alt+W); Enter / Shift+Enter move, Escape closes.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useUi } from '../store/ui.js';
import { sessions } from '../terminal/sessions.js';
import type { FindToggles, SearchResults } from '../terminal/TerminalAddons.js';
import { IconChevronDown, IconChevronUp, IconClose, IconMatchCase, IconRegex, IconWholeWord } from './icons.js';

/**
 * The switches, their keys (by key position, so Alt+C works whatever the layout types) and their icons. An icon, not
 * the letters "Aa" as text: visible text must be part of a control's name (WCAG 2.5.3, axe's label-content-name-
 * mismatch), and "ab" is not part of "Match whole word".
 */
const SWITCHES: ReadonlyArray<{ id: keyof FindToggles; code: string; label: string; Icon: typeof IconClose }> = [
  { id: 'caseSensitive', code: 'KeyC', label: 'Match case', Icon: IconMatchCase },
  { id: 'wholeWord', code: 'KeyW', label: 'Match whole word', Icon: IconWholeWord },
  { id: 'regex', code: 'KeyR', label: 'Use regular expression', Icon: IconRegex },
];

/** The switches as last set, kept for the next find bar (VS Code keeps them too). */
let lastToggles: FindToggles = { caseSensitive: false, regex: false, wholeWord: false };

/** What the count says: "3 of 12", "12 matches" past the highlight limit, "No results", or nothing yet. */
function countText(query: string, results: SearchResults | undefined): string {
  if (!query || !results) return '';
  if (results.count === 0) return 'No results';
  return results.index < 0 ? `${results.count} matches` : `${results.index + 1} of ${results.count}`;
}

/** What is wrong with a regex, without the engine's prefix and the pattern repeated (`/fo(/gi: Unterminated group`). */
function regexProblem(err: unknown): string {
  const why = (err instanceof Error ? err.message : String(err))
    .replace(/^Invalid regular expression: /, '')
    .replace(/^\/.*\/[a-z]*: /s, '');
  return why.charAt(0).toLowerCase() + why.slice(1);
}

export function FindBar({ paneId, openCount }: { paneId: string; openCount: number }) {
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [toggles, setToggles] = useState<FindToggles>(lastToggles);
  const [results, setResults] = useState<SearchResults>();
  const [problem, setProblem] = useState<string>();

  // biome-ignore lint/correctness/useExhaustiveDependencies: each opening (`openCount`) focuses the field again
  useEffect(() => {
    // Ctrl+Shift+F again: back to the field, its text selected for a new search.
    input.current?.focus();
    input.current?.select();
  }, [openCount]);

  useEffect(() => sessions.get(paneId)?.addons.onSearchResults(setResults), [paneId]);

  const find = (q: string, opts: FindToggles, backwards = false): void => {
    const addons = sessions.get(paneId)?.addons;
    let found: boolean | undefined;
    try {
      found = addons?.find(q, opts, backwards);
      setProblem(undefined);
    } catch (err) {
      // Only a regular expression that does not compile throws; the old matches would mislead, so they go.
      addons?.clearSearch();
      setResults(undefined);
      setProblem(`Not a valid regular expression: ${regexProblem(err)}`);
      return;
    }
    if (!q || found === false) setResults(q ? { index: -1, count: 0 } : undefined);
  };
  const flip = (id: keyof FindToggles): void => {
    const next = { ...toggles, [id]: !toggles[id] };
    lastToggles = next;
    setToggles(next);
    find(query, next);
  };
  const close = (): void => {
    const session = sessions.get(paneId);
    session?.addons.clearSearch();
    useUi.getState().closeFind(paneId);
    session?.focus();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const toggle = e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && SWITCHES.find((w) => w.code === e.code);
    if (toggle) flip(toggle.id);
    else if (e.key === 'Escape') close();
    else if (e.key === 'Enter' && e.target === input.current) find(query, toggles, e.shiftKey);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  const count = problem ? '' : countText(query, results);
  return (
    // The bar's own keys (Alt+C/R/W, Escape) work from any control in it.
    <search className="findbar" aria-label="Find in terminal" onKeyDown={onKeyDown}>
      <input
        ref={input}
        className={`findbar__input${problem ? ' findbar__input--bad' : ''}`}
        type="text"
        placeholder="Find"
        aria-label="Find"
        aria-invalid={problem !== undefined}
        aria-describedby={problem ? `find-problem-${paneId}` : undefined}
        spellCheck={false}
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          find(e.target.value, toggles);
        }}
      />
      {SWITCHES.map((w) => (
        <button
          key={w.id}
          type="button"
          className={`icon-button findbar__toggle${toggles[w.id] ? ' icon-button--on' : ''}`}
          aria-label={w.label}
          aria-pressed={toggles[w.id]}
          title={`${w.label} (Alt+${w.code.slice(3)})`}
          onClick={() => flip(w.id)}
        >
          <w.Icon size={16} />
        </button>
      ))}
      <span className="findbar__count" role="status" aria-live="polite">
        {count}
      </span>
      <button
        type="button"
        className="icon-button"
        aria-label="Previous match"
        title="Previous match (Shift+Enter)"
        onClick={() => find(query, toggles, true)}
      >
        <IconChevronUp />
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label="Next match"
        title="Next match (Enter)"
        onClick={() => find(query, toggles)}
      >
        <IconChevronDown />
      </button>
      <button type="button" className="icon-button" aria-label="Close find" title="Close (Escape)" onClick={close}>
        <IconClose size={12} />
      </button>
      {problem && (
        <p className="findbar__problem" id={`find-problem-${paneId}`} role="alert">
          {problem}
        </p>
      )}
    </search>
  );
}
