const t0 = performance.now();
const { register } = await import('tsx/esm/api');
register();
const t1 = performance.now();
await import('apache-arrow');
const t2 = performance.now();
await import('../composition.ts');
const t3 = performance.now();
console.log(`tsx ${(t1-t0)|0} arrow ${(t2-t1)|0} composition ${(t3-t2)|0}`);
