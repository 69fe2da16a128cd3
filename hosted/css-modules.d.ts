/** Stylesheets imported for their side effect; Vite extracts them to dist/hosted/. */
declare module '*.css' {}
