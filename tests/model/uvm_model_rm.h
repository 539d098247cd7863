/* SPDX-License-Identifier: GPL-2.0 */
/* uvm_model_rm.h - the model's RM escape device (uvm_model_rm.c). */
#ifndef UVM_MODEL_RM_H
#define UVM_MODEL_RM_H
int uvm_model_rm_init(void);
void uvm_model_rm_exit(void);
#endif
