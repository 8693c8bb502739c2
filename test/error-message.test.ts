import { errorMessage } from '@state-divergence/runtime';

describe('errorMessage', () => {
  test("an error without a message says its name and description (the QUIC library's idle timeout), not nothing", () => {
    const idle = Object.assign(new Error(''), {
      name: 'ErrorQUICConnectionIdleTimeout',
      description: 'QUIC Connection max idle timeout exhausted',
    });
    expect(errorMessage(idle)).toBe('ErrorQUICConnectionIdleTimeout: QUIC Connection max idle timeout exhausted');
    expect(errorMessage(Object.assign(new Error(''), { name: 'ErrorX' }))).toBe('ErrorX');
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage(null)).toBe('the QUIC connection was closed');
  });
});
