describe('default metrics', () => {
  it('sample the event-loop delay every 100 ms, not every 10 ms (a timer that wakes an idle service)', () => {
    // The module object itself (an import would be a copy), which prom-client calls into.
    const perfHooks = require('node:perf_hooks') as typeof import('node:perf_hooks');
    const monitor = jest.spyOn(perfHooks, 'monitorEventLoopDelay');
    jest.isolateModules(() => {
      require('./metrics');
    });
    expect(monitor).toHaveBeenCalledWith(expect.objectContaining({ resolution: 100 }));
    monitor.mockRestore();
  });
});
