"""Digit recognition with a small MLP on scikit-learn's 8x8 digits."""
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler
from tensorflow.keras import layers, models, optimizers
from tensorflow.keras.utils import to_categorical

EPOCHS = 50


def prepare():
    digits = load_digits()
    x = MinMaxScaler().fit_transform(digits.data)
    y = to_categorical(digits.target, 10)
    return train_test_split(x, y, test_size=0.25, random_state=3)


def build(n_inputs):
    model = models.Sequential()
    model.add(layers.Dense(64, input_shape=(n_inputs,)))
    model.add(layers.BatchNormalization())
    model.add(layers.Activation('relu'))
    model.add(layers.Dense(10, activation='softmax'))
    model.compile(optimizer=optimizers.Adam(learning_rate=0.01), loss='categorical_crossentropy', metrics=['accuracy'])
    return model


x_train, x_test, y_train, y_test = prepare()
net = build(x_train.shape[1])
net.fit(x_train, y_train, epochs=EPOCHS, batch_size=32, validation_data=(x_test, y_test))
print('test accuracy', net.evaluate(x_test, y_test, verbose=0)[1])
