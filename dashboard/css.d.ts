/** Style sheets imported for their side effect (vite emits them as files). */
declare module '*.css';
