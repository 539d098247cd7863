/* SPDX-License-Identifier: GPL-2.0 */
/* uvm_model_rm.h - the model's RM escape device (uvm_model_rm.c, uvm_model_rm_gpu.c). */
#ifndef UVM_MODEL_RM_H
#define UVM_MODEL_RM_H
#include <linux/types.h>
int uvm_model_rm_init(void);
void uvm_model_rm_exit(void);

/* uvm_model_rm_gpu.c: the GPUs RM describes (NV_OK or an RM status). */
unsigned int rm_gpu_count(void);
u32 rm_gpu_client_control(u32 cmd, u32 size, void __user *up);
u32 rm_gpu_subdev_control(int gpu, u32 cmd, u32 size, void __user *up);
/* The GPU an NV01_DEVICE_0 allocation names (0 without parameters), -1: none. */
int rm_gpu_of_device_alloc(const void __user *up, u32 size);
#endif
