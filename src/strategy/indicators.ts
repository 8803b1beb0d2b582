// Streaming indicators for plugins, public as `sluice/indicators`: the trading-signals library
// (MIT, TypeScript) as it is. Feed one from klines with ctx.indicator(). Its own entry, so a
// daemon whose strategies use none does not load it (a few hundred ms at every start).
export * from 'trading-signals';
