/**
 * The custom elements manifest of <crypto-checkout> (dist/widget/custom-elements.json, served at
 * /widget/custom-elements.json and named by package.json's "customElements"), written by
 * `npm run build` with @custom-elements-manifest/analyzer from the element's source and JSDoc:
 * attributes, properties, events with their types, slots, CSS parts and CSS custom properties.
 */
export default {
  globs: ['widget/crypto-checkout.element.ts', 'widget/crypto-checkout.ts'],
  outdir: 'dist/widget',
  litelement: true,
  plugins: [
    {
      // Lit reactive state declared in `static properties` is private: no attribute, no API.
      name: 'crypto-checkout-private-state',
      packageLinkPhase({ customElementsManifest }) {
        for (const mod of customElementsManifest.modules) {
          for (const declaration of mod.declarations ?? []) {
            const hidden = new Set((declaration.members ?? []).filter((m) => m.privacy === 'private' || m.privacy === 'protected').map((m) => m.name));
            if (declaration.attributes) declaration.attributes = declaration.attributes.filter((a) => !hidden.has(a.fieldName ?? a.name));
            if (declaration.members) declaration.members = declaration.members.filter((m) => !hidden.has(m.name));
          }
        }
      },
    },
  ],
};
