/* Helpers shared by the model tests: samples from "a;b;c" text or from
 * frames one by one, a model with chosen limits, and a window compared as
 * text. */
#ifndef ASYNCTOP_TESTS_MODEL_UTIL_H
#define ASYNCTOP_TESTS_MODEL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Values of a test sample: v, 2v, 3v, 4v, 5v. */
struct metrics tm_vals(uint64_t v);
/* model_add of one sample: frames "root;...;leaf" ("" is no frame, at most
 * 64), task, values and task count; returns model_add's status. */
enum status tm_add_m(struct model *m, const char *stack, const char *task,
                     struct metrics v, uint64_t tasks);
/* model_add of one sample whose frames are given one by one: frames[0 ..
 * max) root first, ending early at a NULL (at most 64); task, values v[0 ..
 * METRIC_COUNT) and task count; fails the test unless it is added. */
void tm_add_frames(struct model *m, const char *const *frames, size_t max,
                   const char *task, const uint64_t *v, uint64_t tasks);
/* tm_add with a parked-at stack "root;...;leaf" (NULL: not given) and
 * optional figures x (NULL: none known). */
enum status tm_add_p(struct model *m, const char *stack, const char *parked,
                     const char *task, uint64_t v, const struct extras *x);
/* tm_add_m with tm_vals(v) and one task. */
enum status tm_add(struct model *m, const char *stack, const char *task,
                   uint64_t v);
/* A new model with the default limits but those given (0: the default);
 * fails the test unless it can be made.  The caller frees it. */
struct model *tm_mk(size_t windows, size_t stacks, size_t frames, size_t depth,
                    size_t name);
/* Asserts w reads as want: per row "R stack t=TASKS v=IDLE,WAKES", then per
 * entry "  name t=TASKS v=IDLE", a line each. */
void tm_check_dump(const struct model *m, const struct window *w,
                   const char *want);
/* The stack id of row r of w (which must exist). */
uint32_t tm_row_stack(const struct window *w, size_t r);
/* Asserts how many frames, stacks and names are live in m. */
void tm_live(const struct model *m, size_t frames, size_t stacks, size_t names);

#endif
