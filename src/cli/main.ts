// Placeholder until the CLI lands (issue #2).
console.error('crdgen: not built yet');
process.exit(2);
