// Local only (not committed): the project's config with a longer web-server start for a loaded machine.
import base from "./playwright.config";
export default { ...base, webServer: { ...(base.webServer as object), timeout: 600_000 } };
