/** The service's notion of now, in one place so tests can move it (`vi.spyOn(clock, 'now')`). */
export const clock = {
  now: (): Date => new Date(),
};
