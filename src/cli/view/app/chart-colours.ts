// The plots' colours, fixed: the page's tests find each plot in the screenshot by them.
export const CHART_COLOURS = { reward: "#2563eb", passAtK: "#16a34a", failure: "#dc2626" } as const;
