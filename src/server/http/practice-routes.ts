// A practice exchange's play (npm run practice; docs/practice.md): its state for anyone, and pause,
// resume and speed for the operator. On an ordinary exchange every one of them is 404 not_practice.
import { z } from 'zod';
import { DomainError } from '../../commands/errors.ts';
import { MAX_SPEED, type PracticeControl } from '../practice/practice-control.ts';
import type { ServerContext } from '../context.ts';
import { PracticeStatusSchema } from './response-schemas.ts';
import { defineRoute, type AnyRoute } from './route.ts';

const TAG = 'Practice';

const SpeedBody = z.strictObject({
  speed: z
    .union([z.number().positive().max(MAX_SPEED), z.literal('max')])
    .meta({ description: `simulated time runs this many times faster than the wall clock (above 0, at most ${MAX_SPEED}), or "max": every recorded command at once` }),
});

function practiceOf(context: ServerContext): PracticeControl {
  if (context.practice === undefined) throw new DomainError('not_practice');
  return context.practice;
}

function steeringRoute(action: 'pause' | 'resume', summary: string): AnyRoute {
  return defineRoute({
    method: 'post',
    path: `/api/v1/practice/${action}`,
    access: 'admin',
    tag: TAG,
    summary,
    success: { status: 200, description: 'the play after it', schema: PracticeStatusSchema },
    errors: ['not_practice', 'practice_finished'],
    handle: (call) => {
      const practice = practiceOf(call.context);
      if (action === 'pause') practice.pause();
      else practice.resume();
      return practice.status();
    },
  });
}

export const practiceRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/api/v1/practice',
    access: 'public',
    tag: TAG,
    summary: "A practice exchange's play: state, speed, simulated time, progress, diverged commands; the report once finished",
    success: { status: 200, description: 'the play', schema: PracticeStatusSchema },
    errors: ['not_practice'],
    handle: (call) => practiceOf(call.context).status(),
  }),
  steeringRoute('pause', 'Hold the play and the simulated clock'),
  steeringRoute('resume', 'Play on from where it was held'),
  defineRoute({
    method: 'post',
    path: '/api/v1/practice/speed',
    access: 'admin',
    tag: TAG,
    summary: 'Change the speed of the play (from now on; the simulated time reached is kept)',
    body: SpeedBody,
    success: { status: 200, description: 'the play after it', schema: PracticeStatusSchema },
    errors: ['not_practice', 'practice_finished'],
    handle: (call) => {
      const practice = practiceOf(call.context);
      practice.setSpeed(call.body.speed);
      return practice.status();
    },
  }),
];
