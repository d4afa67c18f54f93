// A terminal colour scheme at a glance: a prompt line in its foreground on its background, then its 16 ANSI colours.
import { ANSI_NAMES, terminalColors } from '../terminal/colorSchemes.js';
import type { ColorScheme } from '../terminal/theme.js';
import { liftContrast } from '../terminal/liftContrast.js';
import { useSettings } from '../store/settings.js';

export function SchemePreview({
  scheme,
  windowScheme,
  name,
}: {
  scheme: string;
  windowScheme: ColorScheme;
  name: string;
}) {
  const { theme } = terminalColors(scheme, windowScheme);
  // The text as the terminal draws it: lifted to the person's minimum contrast (the swatches stay the palette itself).
  const minimum = useSettings((s) => s.minimumContrast);
  const bg = theme.background ?? '#000000';
  const text = (c: string | undefined): string | undefined => c && liftContrast(c, bg, minimum);
  return (
    <div
      className="scheme-preview mono"
      role="img"
      aria-label={`Preview of ${name}`}
      style={{ background: theme.background, color: text(theme.foreground) }}
    >
      <span className="scheme-preview__line">
        <span style={{ color: text(theme.green) }}>~/project</span>{' '}
        <span style={{ color: text(theme.blue) }}>main</span> $ ls
        <span className="scheme-preview__cursor" style={{ background: theme.cursor }} />
      </span>
      <span className="scheme-preview__swatches">
        {ANSI_NAMES.map((c) => (
          <span key={c} className="scheme-preview__swatch" title={c} style={{ background: theme[c] }} />
        ))}
      </span>
    </div>
  );
}
