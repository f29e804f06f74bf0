import tensorflow as tf
from tensorflow.keras import layers

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()
x_train, x_test = x_train / 255.0, x_test / 255.0

init = 'he_uniform'
model = tf.keras.models.Sequential()
model.add(layers.Conv2D(32, (3, 3), activation='relu', kernel_initializer=init, padding='same',
                        input_shape=(32, 32, 3)))
model.add(layers.BatchNormalization())
model.add(layers.Conv2D(32, (3, 3), activation='relu', kernel_initializer=init, padding='same'))
model.add(layers.BatchNormalization())
model.add(layers.MaxPooling2D((2, 2)))
model.add(layers.Dropout(0.0))
model.add(layers.Flatten())
model.add(layers.Dense(128, activation='relu', kernel_initializer=init))
model.add(layers.Dense(10, activation='softmax'))

opt = tf.keras.optimizers.SGD(learning_rate=0.001, momentum=0.9)
model.compile(optimizer=opt, loss='sparse_categorical_crossentropy', metrics=['accuracy'])

history = model.fit(x_train, y_train, epochs=50, batch_size=64,
                    validation_data=(x_test, y_test))
_, acc = model.evaluate(x_test, y_test, verbose=0)
print('> %.3f' % (acc * 100.0))
