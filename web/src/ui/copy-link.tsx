import { useState } from 'react';

/** Copies the current URL, which holds the whole view state. */
export function CopyLinkButton() {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(window.location.href).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        });
      }}
    >
      {done ? 'Link copied' : 'Copy link'}
    </button>
  );
}
