/**
 * The one list of the /v1 schema modules. Importing it registers every schema with an id in zod's global
 * registry, from which lib/api/openapi.ts builds the document's components: a new resource module goes here.
 * Everything else imports the resource module it needs directly.
 */
import "./customers";
import "./integrations";
import "./tiers";
import "./common";
import "./points";
import "./earning-flows";
import "./rewards";
import "./coupons";
import "./notifications";
import "./events";
