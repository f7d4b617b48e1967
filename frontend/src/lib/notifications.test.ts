import { describe, expect, it } from 'vitest';
import { ApiError } from '@/api/client';
import { errorDetailLines, errorMessage } from './notifications';

describe('error text', () => {
  it('lists field errors without repeating the envelope message', () => {
    const error = new ApiError({
      status: 400,
      code: 'invalid',
      message: "username: No user is named 'nobody'.",
      details: { username: ["No user is named 'nobody'."], role: ['"boss" is not a valid choice.'] },
    });
    expect(errorMessage(error)).toBe("username: No user is named 'nobody'.");
    expect(errorDetailLines(error)).toEqual(['role: "boss" is not a valid choice.']);
  });

  it('has a message for anything thrown', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage('???')).toBe('Something went wrong.');
    expect(errorDetailLines(new Error('boom'))).toEqual([]);
  });
});
