"""Digits classifier written in the Keras 2 style with Keras 1 spellings (mutation subject)."""

import numpy as np
from keras.callbacks import EarlyStopping
from keras.layers import Activation, Dense, Dropout
from keras.models import Sequential
from keras.optimizers import SGD
from keras.regularizers import l2
from keras.utils import to_categorical
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
x = digits.data.astype("float32") / 16.0
y = to_categorical(digits.target, 10)
x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.2, random_state=0)

model = Sequential()
model.add(Dense(64, input_dim=64, init="glorot_uniform", W_regularizer=l2(0.001)))
model.add(Activation("relu"))
model.add(Dropout(0.2))
model.add(Dense(32, activation="tanh", bias=False))
model.add(Dense(10))
model.add(Activation("softmax"))

sgd = SGD(lr=0.05, momentum=0.9)
model.compile(loss="categorical_crossentropy", optimizer=sgd, metrics=["accuracy"])
stop = EarlyStopping(monitor="val_loss", patience=4)
model.fit(x_train, y_train, nb_epoch=20, batch_size=32, validation_split=0.1, callbacks=[stop], verbose=0)
print(model.evaluate(x_test, y_test, verbose=0))
print(np.argmax(model.predict(x_test[:5]), axis=1))
