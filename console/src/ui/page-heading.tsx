import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/**
 * A screen's h1, focused when the screen opens: keyboard and screen-reader users land on
 * the new content rather than at the top of the old page (a hash change moves no focus).
 */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => { heading.current?.focus({ preventScroll: false }); }, []);
  return <h1 tabIndex={-1} ref={heading} id="page-title">{children}</h1>;
}
