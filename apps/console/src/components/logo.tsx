/** The product mark: a delivery van over an energy bolt. */
export function Logo({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 48 48" aria-hidden="true">
      <defs>
        <linearGradient id="fd-logo-g" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#3b8bff" />
          <stop offset="1" stopColor="#1346d8" />
        </linearGradient>
      </defs>
      <rect width="48" height="48" rx="12" fill="url(#fd-logo-g)" />
      <path d="M9 30V18a2 2 0 0 1 2-2h16a2 2 0 0 1 2 2v3h4.6a2 2 0 0 1 1.7.9l3.3 4.9c.3.4.4.8.4 1.2V30a2 2 0 0 1-2 2h-1" fill="none" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" strokeLinejoin="round" />
      <circle cx="16" cy="32" r="3.4" fill="#fff" />
      <circle cx="32" cy="32" r="3.4" fill="#fff" />
      <path d="M19.5 19.5l-3.5 5h4l-2 4.5 5.5-6.5h-4l2-3z" fill="#ffd43b" />
    </svg>
  );
}
