/**
 * 2-D matrix product whose gradient uses explicit transposes and plain products. On the WASM
 * backend only an untransposed, unbatched product takes the fast (XNNPACK) path; batched or
 * transposed products (what tfjs's own matMul gradient and multi-head attention produce) were 5–15×
 * slower here, e.g. 4 heads × [512,512]·[512,16]: 60 ms vs 4.7 ms for one [512,512]·[512,64].
 */
import { tf } from './tf-backend.js';

export const matMul2d = tf.customGrad(((a: tf.Tensor2D, b: tf.Tensor2D, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: tf.matMul(a, b),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved as [tf.Tensor2D, tf.Tensor2D];
      return [tf.matMul(dy as tf.Tensor2D, tf.transpose(sb)), tf.matMul(tf.transpose(sa), dy as tf.Tensor2D)];
    },
  };
}) as Parameters<typeof tf.customGrad>[0]) as (a: tf.Tensor2D, b: tf.Tensor2D) => tf.Tensor2D;
