// zod as this project resolves it, for environments generated outside the project (where a bare "zod" has no
// node_modules to resolve from): one zod instance and one set of its types for the library and the environment.
export { z } from "zod";
