import { uwsNativeProblem } from '../../src/transport/ws/uws-native';

describe('the uWebSockets.js native build check (issue 26 finding 11)', () => {
  it('passes on the Node this project runs on', () => {
    expect(process.versions.node.split('.')[0]).toBe('20');
    expect(uwsNativeProblem()).toBeUndefined();
  });

  it.each([
    ['22.12.0', '127'],
    ['24.1.0', '137'],
  ])('names Node %s and the version to use where no native build exists', (node, modules) => {
    const problem = uwsNativeProblem({ node, modules });
    expect(problem).toContain(`Node ${node}`);
    expect(problem).toContain(`ABI ${modules}`);
    expect(problem).toMatch(/run this project on Node 20/);
  });
});
