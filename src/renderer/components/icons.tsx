// Line icons drawn inline (16px grid, currentColor), so the UI needs no icon font or network.
import type { ReactElement, SVGProps } from 'react';
import type { TargetInfo } from '../../shared/targets.js';

type IconProps = SVGProps<SVGSVGElement> & { size?: number };

function icon(paths: ReactElement, viewBox = '0 0 16 16') {
  // biome-ignore lint/correctness/noComponentHookFactories: called once per icon at module load, never in a render
  return function Icon({ size = 14, ...rest }: IconProps) {
    return (
      <svg
        width={size}
        height={size}
        viewBox={viewBox}
        fill="none"
        stroke="currentColor"
        strokeWidth={1.5}
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
        focusable="false"
        {...rest}
      >
        {paths}
      </svg>
    );
  };
}

export const IconPlus = icon(<path d="M8 3v10M3 8h10" />);
export const IconClose = icon(<path d="M4 4l8 8M12 4l-8 8" />);
export const IconBookmark = icon(<path d="M4.5 2.5h7v11L8 11l-3.5 2.5z" />);
export const IconSplit = icon(
  <>
    <rect x="2" y="3" width="12" height="10" rx="1.5" />
    <path d="M8 3v10" />
  </>,
);
export const IconTerminal = icon(
  <>
    <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
    <path d="M4.5 6.5l2 1.5-2 1.5M8 10h3.5" />
  </>,
);
export const IconLocal = icon(
  <>
    <rect x="2" y="3" width="12" height="8" rx="1.2" />
    <path d="M6 13.5h4M8 11v2.5" />
  </>,
);
export const IconServer = icon(
  <>
    <rect x="2.5" y="2.5" width="11" height="4.5" rx="1" />
    <rect x="2.5" y="9" width="11" height="4.5" rx="1" />
    <path d="M5 4.75h.01M5 11.25h.01" />
  </>,
);
export const IconBox = icon(
  <>
    <path d="M8 1.75l5.75 3.1v6.3L8 14.25l-5.75-3.1v-6.3z" />
    <path d="M2.25 4.85L8 8l5.75-3.15M8 8v6.25" />
  </>,
);
export const IconPlug = icon(<path d="M6 2v3M10 2v3M4.5 5h7v2.5a3.5 3.5 0 01-7 0zM8 11v3" />);
export const IconStop = icon(<rect x="4" y="4" width="8" height="8" rx="1" />);
export const IconStar = icon(
  <path d="M8 2.2l1.75 3.6 3.95.55-2.85 2.8.7 3.95L8 11.2l-3.55 1.9.7-3.95-2.85-2.8 3.95-.55z" />,
);
export const IconActivity = icon(<path d="M1.5 8h3l2-5 3 10 2-5h3" />);
export const IconFolder = icon(
  <path d="M2 4.5a1 1 0 011-1h3l1.5 1.5H13a1 1 0 011 1V12a1 1 0 01-1 1H3a1 1 0 01-1-1z" />,
);

/** A terminal struck through: the backend runs commands but opens no shell. */
export const IconNoShell = icon(
  <>
    <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
    <path d="M4.5 6.5l2 1.5-2 1.5M2.5 13.5l11-11" />
  </>,
);

/**
 * Picked from the provider's declared flags, not its name. A plugin brings no picture of its own, so a plugin's
 * backend (or one whose plugin is not loaded, with no flags) falls back to the plug.
 */
export function BackendIcon({
  flags,
  fallback,
  size,
}: {
  flags: TargetInfo['flags'];
  fallback?: boolean;
  size?: number;
}) {
  if (!flags || fallback) return <IconPlug size={size} />;
  if (flags.is_container) return <IconBox size={size} />;
  if (flags.is_remote) return <IconServer size={size} />;
  return <IconLocal size={size} />;
}

export const IconEdit = icon(<path d="M10.5 2.5l3 3L6 13H3v-3z M9 4l3 3" />);
export const IconDrain = icon(
  <>
    <path d="M8 2.5v7M5 6.5l3 3 3-3" />
    <path d="M3 13.5h10" />
  </>,
);
export const IconTrash = icon(
  <>
    <path d="M2.5 4h11M6.5 4V2.5h3V4M4 4l.7 9.5h6.6L12 4" />
    <path d="M6.75 6.5v4.5M9.25 6.5v4.5" />
  </>,
);
export const IconSplitDown = icon(
  <>
    <rect x="2" y="3" width="12" height="10" rx="1.5" />
    <path d="M2 8h12" />
  </>,
);
export const IconMaximize = icon(<path d="M2.5 6V2.5H6M10 2.5h3.5V6M13.5 10v3.5H10M6 13.5H2.5V10" />);
export const IconRestore = icon(<path d="M6 2.5V6H2.5M13.5 6H10V2.5M10 13.5V10h3.5M2.5 10H6v3.5" />);
export const IconSearch = icon(
  <>
    <circle cx="7" cy="7" r="4.25" />
    <path d="M10.2 10.2l3.3 3.3" />
  </>,
);
export const IconChevronUp = icon(<path d="M4 10l4-4 4 4" />);
export const IconChevronDown = icon(<path d="M4 6l4 4 4-4" />);
export const IconSettings = icon(
  <>
    <circle cx="8" cy="8" r="2.2" />
    <path
      d={
        'M8 1.75v1.8M8 12.45v1.8M1.75 8h1.8M12.45 8h1.8M3.6 3.6l1.25 1.25M11.15 11.15l1.25 1.25' +
        'M3.6 12.4l1.25-1.25M11.15 4.85l1.25-1.25'
      }
    />
  </>,
);
export const IconSidebar = icon(
  <>
    <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
    <path d="M6 2.75v10.5" />
  </>,
);
export const IconCommand = icon(<path d="M3 5l3 3-3 3M8 11h5" />);

// The find bar's switches, drawn as VS Code draws them ("Aa", "ab" over a bracket, ".*"): letters as paths, not text,
// so what shows is an icon and the button's name alone (Match case, …) is what people and speech control read.
export const IconMatchCase = icon(
  <path d="M1.5 12.5L4.75 3.5 8 12.5M2.7 9.5h4.1M13.75 8v4.5M13.75 10.25a1.9 2.1 0 11-3.8 0 1.9 2.1 0 013.8 0z" />,
);
export const IconWholeWord = icon(
  <>
    <path d="M5.75 5v5M5.75 7.5a1.75 2 0 11-3.5 0 1.75 2 0 013.5 0z" />
    <path d="M8.75 2.5V10M8.75 7.5a1.75 2 0 103.5 0 1.75 2 0 00-3.5 0z" />
    <path d="M1.5 11.5v2h13v-2" />
  </>,
);
export const IconRegex = icon(
  <>
    <path d="M10.5 2.5v6M7.9 4l5.2 3M13.1 4l-5.2 3" />
    <circle cx="4" cy="12" r="1.4" fill="currentColor" stroke="none" />
  </>,
);
