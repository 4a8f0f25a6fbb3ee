import { formatNumber } from "@/components/ui";

/**
 * The one look of the dashboard's charts (recharts): the grid's colour, a day's tick (YYYY-MM-DD shown as MM-DD),
 * compact numbers on an axis (1.2K) and exact numbers in a tooltip.
 */
export const CHART_GRID = "#e2e8f0";
export const dayTick = (day: string) => day.slice(5);
export const compactNumber = (n: number) => new Intl.NumberFormat("en-US", { notation: "compact" }).format(n);
export const tooltipNumber = (value: unknown) => formatNumber(Number(value));
