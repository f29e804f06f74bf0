import tensorflow as tf

step = tf.train.get_or_create_global_step()
weights = tf.Variable(tf.zeros([3]))
grow = tf.assign_add(step, 1)
supervisor = tf.train.Supervisor(logdir="./checkpoints", global_step=step)
with supervisor.managed_session() as session:
    session.run(tf.global_variables_initializer())
    for turn in range(10):
        if supervisor.should_stop():
            break
        session.run(grow)
